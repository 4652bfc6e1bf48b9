import { describeStress } from './stress-scenario.js'

describeStress(false, 'a composed cache + retry stack')
